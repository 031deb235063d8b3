// Histogram bucket bounds exactly as kube-apiserver v1.32 declares them (apf-semantics 9.4 and
// k8s.io/apiserver/pkg/endpoints/metrics): dashboards written for Kubernetes read Fairway's
// histograms only if the `le` values match.

/** request_wait_duration_seconds and request_execution_seconds. */
export const QUEUE_WAIT_AND_EXECUTION_BUCKETS_SECONDS: readonly number[] = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

export const QUEUE_LENGTH_BUCKETS: readonly number[] = [0, 10, 25, 50, 100, 250, 500, 1000];

export const WORK_ESTIMATED_SEATS_BUCKETS: readonly number[] = [1, 2, 4, 10];

export const WATCH_COUNT_SAMPLES_BUCKETS: readonly number[] = [0, 1, 10, 100, 1000, 10000];

/** The timing-ratio histograms. */
export const PRIORITY_LEVEL_SEAT_UTILIZATION_BUCKETS: readonly number[] = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1];
export const PRIORITY_LEVEL_REQUEST_UTILIZATION_BUCKETS: readonly number[] = [0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1];
export const READ_VS_WRITE_BUCKETS: readonly number[] = [0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1];
export const DEMAND_SEATS_BUCKETS: readonly number[] = [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6];

/** apiserver_request_duration_seconds. */
export const REQUEST_DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

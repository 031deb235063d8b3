// Data: every `apiserver_flowcontrol_*` family kube-apiserver 1.32 registers and shows by default,
// with its type, label names and histogram buckets.
//
// Source: k8s.io/apiserver v0.32.0, pkg/util/flowcontrol/metrics/metrics.go (the `metrics`
// Registerables list, the four timing-ratio histogram vectors appended to it, their options).
// Left out: request_concurrency_limit (DeprecatedVersion 1.30.0) and request_concurrency_in_use
// (DeprecatedVersion 1.31.0), which component-base hides in 1.32 (a metric deprecated before the
// running minor version is hidden unless --show-hidden-metrics-for-version asks for it:
// KUBE_HIDDEN_FLOWCONTROL_FAMILIES).
// The timing-ratio histograms are exposed as histograms; priority_level_seat_utilization carries
// the constant label phase="executing". Labels are listed sorted.

export interface KubeFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram';
  labels: readonly string[];
  buckets?: readonly number[];
}

const PAIR = ['flow_schema', 'priority_level'];
const LEVEL = ['priority_level'];
const QUEUE_LENGTH = [0, 10, 25, 50, 100, 250, 500, 1000];
const DURATION = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

export const KUBE_FLOWCONTROL_FAMILIES: readonly KubeFamily[] = [
  { name: 'apiserver_flowcontrol_rejected_requests_total', type: 'counter', labels: [...PAIR, 'reason'] },
  { name: 'apiserver_flowcontrol_dispatched_requests_total', type: 'counter', labels: PAIR },
  { name: 'apiserver_flowcontrol_current_r', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_dispatch_r', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_latest_s', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_next_s_bounds', type: 'gauge', labels: ['bound', 'priority_level'] },
  { name: 'apiserver_flowcontrol_next_discounted_s_bounds', type: 'gauge', labels: ['bound', 'priority_level'] },
  { name: 'apiserver_flowcontrol_current_inqueue_requests', type: 'gauge', labels: PAIR },
  { name: 'apiserver_flowcontrol_current_inqueue_seats', type: 'gauge', labels: PAIR },
  { name: 'apiserver_flowcontrol_request_queue_length_after_enqueue', type: 'histogram', labels: PAIR, buckets: QUEUE_LENGTH },
  { name: 'apiserver_flowcontrol_current_executing_seats', type: 'gauge', labels: PAIR },
  { name: 'apiserver_flowcontrol_current_executing_requests', type: 'gauge', labels: PAIR },
  { name: 'apiserver_flowcontrol_request_wait_duration_seconds', type: 'histogram', labels: ['execute', ...PAIR], buckets: DURATION },
  { name: 'apiserver_flowcontrol_request_execution_seconds', type: 'histogram', labels: [...PAIR, 'type'], buckets: DURATION },
  { name: 'apiserver_flowcontrol_watch_count_samples', type: 'histogram', labels: PAIR, buckets: [0, 1, 10, 100, 1000, 10000] },
  { name: 'apiserver_flowcontrol_epoch_advance_total', type: 'counter', labels: ['priority_level', 'success'] },
  { name: 'apiserver_flowcontrol_work_estimated_seats', type: 'histogram', labels: PAIR, buckets: [1, 2, 4, 10] },
  { name: 'apiserver_flowcontrol_request_dispatch_no_accommodation_total', type: 'counter', labels: PAIR },
  { name: 'apiserver_flowcontrol_nominal_limit_seats', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_lower_limit_seats', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_upper_limit_seats', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_demand_seats_high_watermark', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_demand_seats_average', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_demand_seats_stdev', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_demand_seats_smoothed', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_target_seats', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_seat_fair_frac', type: 'gauge', labels: [] },
  { name: 'apiserver_flowcontrol_current_limit_seats', type: 'gauge', labels: LEVEL },
  {
    name: 'apiserver_flowcontrol_priority_level_seat_utilization',
    type: 'histogram',
    labels: ['phase', 'priority_level'],
    buckets: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1],
  },
  {
    name: 'apiserver_flowcontrol_priority_level_request_utilization',
    type: 'histogram',
    labels: ['phase', 'priority_level'],
    buckets: [0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.25, 0.5, 0.75, 1],
  },
  {
    name: 'apiserver_flowcontrol_read_vs_write_current_requests',
    type: 'histogram',
    labels: ['phase', 'request_kind'],
    buckets: [0, 0.001, 0.01, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1],
  },
  { name: 'apiserver_flowcontrol_demand_seats', type: 'histogram', labels: LEVEL, buckets: [0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4, 1.7, 2, 2.8, 4, 6] },
];

/** The families 1.32 hides, shown with --show-hidden-metrics-for-version=1.31. */
export const KUBE_HIDDEN_FLOWCONTROL_FAMILIES: readonly KubeFamily[] = [
  { name: 'apiserver_flowcontrol_request_concurrency_limit', type: 'gauge', labels: LEVEL },
  { name: 'apiserver_flowcontrol_request_concurrency_in_use', type: 'gauge', labels: PAIR },
];

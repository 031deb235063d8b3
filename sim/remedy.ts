// What the report's explanations propose (a remedy) and what the simulated suggestions made of them.

export type Remedy =
  | { kind: 'dedicated-level'; flow: string }
  | { kind: 'more-shares'; level: string }
  | { kind: 'longer-queues'; level: string }
  | { kind: 'more-queues'; level: string }
  | { kind: 'paginate'; flow: string; limit: number };

export interface FlowEffect {
  rejectedFraction: number | null;
  waitP99Seconds: number | null;
  /** Wait plus execution: with the capacity model, more heavy work at once shows here, not in the wait. */
  latencyP99Seconds: number | null;
}

export interface Suggestion {
  /** The suffering flows it helped (of those whose explanation named it). */
  for: string[];
  kind: Remedy['kind'];
  title: string;
  /** The edits, one line each. */
  changes: string[];
  /** What to apply: manifests (`kubectl apply -f`), or for a client change the flow as it would be. */
  manifest: string;
  effect: Record<string, { before: FlowEffect; after: FlowEffect; change: 'better' | 'worse' | 'same' }>;
}

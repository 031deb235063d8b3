// Types for parse-prometheus-text-format (the package ships none): the families of a Prometheus
// text exposition, sample values kept as text.
declare module 'parse-prometheus-text-format' {
  export interface ParsedFamily {
    name: string;
    help: string;
    type: string;
    metrics: {
      value?: string;
      labels?: Record<string, string>;
      buckets?: Record<string, string>;
      quantiles?: Record<string, string>;
      count?: string;
      sum?: string;
    }[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}

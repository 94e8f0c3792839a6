/** The shapes the benchmark scripts pass around (they are plain .mjs files checked with @ts-check). */

export interface Budget {
  op: '<=' | '<' | '>=' | '==';
  limit: number | string;
  /** Whether the ratio to the baseline or the value itself is judged. */
  of: 'ratio' | 'value';
  /** Shown instead of the operator and limit. */
  text?: string;
}

export interface Row {
  id: string;
  group: string;
  measure: string;
  value?: number;
  display?: string | undefined;
  unit?: string;
  baseline?: string;
  baselineValue?: number;
  baselineDisplay?: string;
  ratio?: number;
  budget?: Budget | undefined;
  note?: string | undefined;
  status?: 'NOT MEASURED';
  verdict?: 'PASS' | 'MISS' | 'INFO' | 'NOT MEASURED';
}

export interface SuiteOptions {
  quick: boolean;
  realTime?: boolean;
  log: (line: string) => void;
}

export type Suite = (options: SuiteOptions) => Promise<Row[]>;

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  os: string;
  node: string;
  extraCaCerts: boolean;
}

export interface BenchResults {
  date: string;
  command: string;
  quick: boolean;
  realTime: boolean;
  durationS: number;
  machine: Machine;
  failures: string[];
  missing: string[];
  rows: Row[];
}

/** One request the load generator sends. */
export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  statuses: Record<string, number>;
  errors: number;
}

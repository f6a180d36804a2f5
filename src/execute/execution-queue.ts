import type { ExecutionResult } from "../result/execution-result.ts";
import { notRunResult } from "./run-process.ts";

type Task = (signal: AbortSignal) => Promise<ExecutionResult>;

interface Waiting {
  start(): void;
}

/**
 * Runs executions one at a time in arrival order. A task whose signal aborts while it waits
 * never starts and resolves to a cancelled result; a failing task does not stall the ones after.
 */
export class ExecutionQueue {
  readonly #waiting: Waiting[] = [];
  #busy = false;

  /** Queues a task; it receives the same signal once it starts. */
  run(signal: AbortSignal | undefined, task: Task): Promise<ExecutionResult> {
    const taskSignal = signal ?? new AbortController().signal;
    if (taskSignal.aborted) return Promise.resolve(notRunResult(0, { reason: "cancelled" }));
    return new Promise<ExecutionResult>((resolve, reject) => {
      const entry: Waiting = {
        start: () => {
          taskSignal.removeEventListener("abort", onAbort);
          // Promise.resolve().then: a task that throws synchronously also becomes a rejection.
          Promise.resolve()
            .then(() => task(taskSignal))
            .then(resolve, reject)
            .finally(() => {
              this.#busy = false;
              this.#next();
            });
        },
      };
      const onAbort = () => {
        const index = this.#waiting.indexOf(entry);
        if (index === -1) return;
        this.#waiting.splice(index, 1);
        resolve(notRunResult(0, { reason: "cancelled" }));
      };
      taskSignal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.push(entry);
      this.#next();
    });
  }

  #next(): void {
    if (this.#busy) return;
    const entry = this.#waiting.shift();
    if (entry === undefined) return;
    this.#busy = true;
    entry.start();
  }
}

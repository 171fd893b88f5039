import type { Wire } from './wire.js';

/*
 * A response body written a step at a time, so that a large one (a page of 100 payment methods
 * whose `data` is as large as input allows: hundreds of MB of XML) never holds the event loop for
 * long: the caller writes a step, yields, writes the next (src/http/sliced-body.ts). The bytes are
 * those the one-call encoders (encodeXml, encodeJson) print for the same tree; only when they are
 * produced changes. docs/wire-compatibility.md, "Large pages".
 */

/** What one step may still write; the writer lowers both as it goes. */
export interface WriteBudget {
  /** Values (elements, members, items) it may still start. */
  values: number;
  /** Characters it may still write. */
  chars: number;
}

function budgetSpent(budget: WriteBudget): boolean {
  return budget.values <= 0 || budget.chars <= 0;
}

/** A body being written; see the comment at the top. */
export interface BodyWriter {
  /** Writes on until the body is done (true) or `budget` is spent (false). Throws what the one-call encoder throws. */
  advance(budget: WriteBudget): boolean;
  /** The text written since the last take, as far as it is final ('' while a part written may still be taken back). */
  take(): string;
  /** Forgets everything it holds (after the last take, a throw, or when the body is abandoned). */
  close(): void;
}

/** The items of a list body, each made when it is written (a view of a stored row), then dropped. */
export interface ListItems {
  readonly count: number;
  item(index: number): Wire;
}

/** A list's items from rows and the view of one. */
export function listItems<Row>(rows: readonly Row[], view: (row: Row) => Wire): ListItems {
  return { count: rows.length, item: (index) => view(rows[index] as Row) };
}

/**
 * A tree writer's text not yet taken, and the loop of its steps: `step` writes the next value, or
 * the end of a container, onto the text (each counts as one of the budget's values) while
 * `pending` says something begun is left to write.
 */
export abstract class SteppedText {
  protected text = '';

  /** Appends `raw` as it is (a prolog, a list's own brackets or tags). */
  write(raw: string): void {
    this.text += raw;
  }

  /** The text written since the last take. */
  take(): string {
    const text = this.text;
    this.text = '';
    return text;
  }

  /** Writes until nothing begun is left (true) or `budget` is spent (false: the next call goes on from there). */
  advance(budget: WriteBudget): boolean {
    let text = this.text;
    const limit = text.length + budget.chars;
    let values = budget.values;
    try {
      while (this.pending()) {
        if (values <= 0 || text.length >= limit) return false;
        values -= 1;
        text = this.step(text);
      }
      return true;
    } finally {
      budget.values = values;
      budget.chars = limit - text.length;
      this.text = text;
    }
  }

  protected abstract pending(): boolean;

  /** `text` followed by what comes next. */
  protected abstract step(text: string): string;
}

/** The frame at `depth` of a writer's stack: frames are reused from one container to the next, made the first time. */
export function frameAt<Frame>(frames: Frame[], depth: number, make: () => Frame): Frame {
  let frame = frames[depth];
  if (frame === undefined) {
    frame = make();
    frames.push(frame);
  }
  return frame;
}

/** A tree writer, as a body of trees drives it. */
export interface TreeWriter {
  advance(budget: WriteBudget): boolean;
  take(): string;
  clear(): void;
}

/**
 * A body of one tree, or of a list's items one after another, each written by `writer` in steps:
 * `open` writes what comes first (and begins the one tree), `beginItem` each item (and what
 * comes between two), `finish` what comes last.
 */
export abstract class TreesBody<Writer extends TreeWriter> implements BodyWriter {
  private started = false;
  /** The list's next item; -1 once the body is finished. */
  private next = 0;

  constructor(
    protected readonly writer: Writer,
    protected readonly items: ListItems | null,
  ) {}

  advance(budget: WriteBudget): boolean {
    if (!this.started) {
      this.started = true;
      this.open(budget);
    }
    for (;;) {
      if (!this.writer.advance(budget)) return false;
      if (this.next < 0) return true;
      if (this.items === null || this.next === this.items.count) {
        this.finish();
        this.next = -1;
        return true;
      }
      if (budgetSpent(budget)) return false;
      const index = this.next;
      this.next += 1;
      this.beginItem(index, this.items.item(index), budget);
    }
  }

  take(): string {
    return this.writer.take();
  }

  close(): void {
    this.writer.clear();
  }

  protected abstract open(budget: WriteBudget): void;
  protected abstract beginItem(index: number, item: Wire, budget: WriteBudget): void;
  protected abstract finish(): void;
}

import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Notice, ProblemAlert } from './ui.js';

interface Question {
  message: string;
  confirmLabel: string;
  answer: (yes: boolean) => void;
}

let ask: ((question: Question) => void) | undefined;

/** Asks in a modal dialog; resolves true only on the explicit confirm button. */
export function confirmAction(message: string, confirmLabel = 'Confirm'): Promise<boolean> {
  return new Promise((resolve) => {
    if (!ask) return resolve(false);
    ask({ message, confirmLabel, answer: resolve });
  });
}

/** The one confirmation dialog of an app; render it once, near the root. */
export function ConfirmHost() {
  const [question, setQuestion] = useState<Question | undefined>();
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ask = setQuestion;
    return () => void (ask = undefined);
  }, []);
  useEffect(() => {
    if (question && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [question]);
  const close = (yes: boolean) => {
    dialog.current?.close();
    question?.answer(yes);
    setQuestion(undefined);
  };
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-message" onCancel={() => close(false)}>
      <h2 id="confirm-title">Please confirm</h2>
      <p id="confirm-message">{question?.message}</p>
      <div class="actions">
        <button type="button" class="secondary" onClick={() => close(false)}>
          Cancel
        </button>
        <button type="button" onClick={() => close(true)}>
          {question?.confirmLabel ?? 'Confirm'}
        </button>
      </div>
    </dialog>
  );
}

let flashed: string | undefined;

/** A success message for the next page to show, when an action moves the app there (a created plan opens its own page). */
export function flash(message: string): void {
  flashed = message;
}

export interface RunOptions<T> {
  /** Asked first; the action runs only when confirmed. */
  confirm?: string;
  confirmLabel?: string;
  action: () => Promise<T>;
  /** The success message, from the API's answer. */
  done?: (result: T) => string;
}

export interface ActionState {
  run: <T>(options: RunOptions<T>) => Promise<T | undefined>;
  pending: boolean;
  /** The outcome of the last run: the problem's detail or the success message. */
  feedback: ComponentChildren;
}

/** One mutating action with its confirmation, busy state and outcome. */
export function useAction(): ActionState {
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<{ error?: unknown; message?: string }>(() => {
    const message = flashed;
    flashed = undefined;
    return { message };
  });
  const run = async <T,>(options: RunOptions<T>): Promise<T | undefined> => {
    if (options.confirm && !(await confirmAction(options.confirm, options.confirmLabel))) return undefined;
    setPending(true);
    setOutcome({});
    try {
      const result = await options.action();
      setOutcome({ message: options.done?.(result) });
      return result;
    } catch (error) {
      setOutcome({ error });
      return undefined;
    } finally {
      setPending(false);
    }
  };
  const feedback = outcome.error ? <ProblemAlert error={outcome.error} /> : outcome.message ? <Notice>{outcome.message}</Notice> : null;
  return { run, pending, feedback };
}

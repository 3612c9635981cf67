/**
 * Reading an iterator against a deadline and an HTTP/2 GOAWAY: the Run's frame loop waits
 * for its next frame this way, so silence and a closing connection end the wait.
 *
 * @module
 */

/** The next item of an iterator, or "deadline" when it does not come before `deadline` (epoch ms). */
export async function nextBefore<T>(
  iterator: AsyncIterator<T>,
  deadline: number,
  goingAway?: Promise<void>,
): Promise<IteratorResult<T> | "deadline" | "going-away"> {
  if (deadline === Number.POSITIVE_INFINITY && goingAway === undefined) {
    return await iterator.next();
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"deadline">((resolve) => {
    if (deadline === Number.POSITIVE_INFINITY) return;
    timer = setTimeout(() => resolve("deadline"), Math.max(0, deadline - Date.now()));
  });
  const away = goingAway?.then(() => "going-away" as const) ?? late;
  const next = iterator.next();
  next.catch(() => {}); // after the deadline, the Run is closed and this read fails unheard
  try {
    return await Promise.race([next, late, away]);
  } finally {
    clearTimeout(timer);
  }
}

// One page on screen at a time. Every visit gets an AbortSignal that aborts when the next visit
// starts, whether or not the page has finished loading: a page registers its cleanup (a timer, a
// listener) on the signal before its first await, so a slow page can never keep running, or
// overwrite the next page's cleanup, once it has been left. No DOM here: node's tests run it.
export function createRouter() {
  let current = new AbortController();
  return {
    /** Leave the page on screen, then open the next: `open(signal)`. True if it is still on screen. */
    async visit(open) {
      current.abort();
      const visit = new AbortController();
      current = visit;
      await open(visit.signal);
      return !visit.signal.aborted;
    },
    /** Leave the page on screen for no other (signing in). */
    leave() {
      current.abort();
    },
  };
}

// Keeping the process up while a caller waits for the runtime: an acquisition until it settles,
// a release its caller awaits until it is answered.
//
// Why here and not in the store: what keeps Node's event loop alive is whatever handle happens
// to be ref'd — a socket, a client's command timer — and the runtime's own connections are
// unref'd on purpose (a finished process must exit). A command may wait where no handle is
// ref'd at all: in a client's offline queue while it reconnects on an unref'd timer, behind a
// Cluster that is not ready, in a user's client whose reconnects were turned off. Node then exits
// with the call never settled — its body never ran, its caller never told. So the lock layer holds
// the process itself for exactly as long as someone awaits it; every wait it holds is bounded
// (lock/acquire.ts's deadline, the store's command bound), so the hold never outlives its bound.
//
// One interval for the whole process, ref'd while any hold is open and unref'd otherwise: a
// lock costs a counter, not a timer.
import { MAX_TIMER_DELAY_MS, setRepeatingTimer } from './timer-delay';

let open = 0;
let keepAlive: NodeJS.Timeout | undefined;

/** Holds the process up until the returned function is called (idempotent). */
export function holdProcess(): () => void {
  if (open++ === 0) (keepAlive ??= setRepeatingTimer(() => undefined, MAX_TIMER_DELAY_MS)).ref();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--open === 0) keepAlive!.unref();
  };
}

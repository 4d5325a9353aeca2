// The one test for "this text may hold a tag", shared by the routes (which skip a file without
// one before loading the weaver) and the runtime (which asks it of TypeScript files a process ran
// without a route). Any letter case, and near misses (redis-lock, redis_lock, redisLocks after the
// @): a tag the compiler would ignore for its spelling is still one the user meant, and an error.
// Spelled in two parts: the runtime runs from its TypeScript source in the repo's own tests, and
// would find the tag's text in this file.

/** False means no tag in any spelling: nothing there to lock. */
export const MAY_HOLD_TAG = new RegExp(`@${'redis'}[-_.]?lock`, 'i');

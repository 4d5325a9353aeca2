// Redlock over 3 independent primaries: see redlock-quorum.ts.
import test from 'ava';
import { redlockQuorum } from './redlock-quorum';

redlockQuorum(test, 3);

// Redlock over 5 independent primaries: see redlock-quorum.ts.
import test from 'ava';
import { redlockQuorum } from './redlock-quorum';

redlockQuorum(test, 5);

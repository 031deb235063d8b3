// Tests of code that refuses with kube-apiserver's Status: the Status a call threw.
import { isApiError } from '../errors.ts';
import type { Status } from '../../resources/types.ts';

/** The Status of the ApiError `fn` throws; any other outcome fails the test. */
export function statusOf(fn: () => unknown): Status {
  try {
    fn();
  } catch (error) {
    if (isApiError(error)) return error.status;
    throw error;
  }
  throw new Error('expected an ApiError');
}

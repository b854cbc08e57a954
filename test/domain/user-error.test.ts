import { describe, expect, it } from 'vitest';
import { AppError, NotFoundError, StateValidationError, UnprocessableError, WrongExpectedRevisionError } from '../../src/core/errors.js';
import { errorCatalogue } from '../../src/modules.js';

/**
 * Whose an error is comes from the catalogue (issue 37): AppError.statusIn is the status the error
 * middleware answers with, isUserError its 4xx; no form keeps a list of its own.
 */
describe('AppError.statusIn and isUserError', () => {
  it('take the kind first, then the code’s status in the catalogue, and an unknown code is the service’s 500', () => {
    expect(new UnprocessableError('no').statusIn(errorCatalogue)).toBe(422);
    expect(new StateValidationError('not yet').statusIn(errorCatalogue)).toBe(409);
    expect(new AppError('VALIDATION_ERROR', 'bad').statusIn(errorCatalogue)).toBe(400);
    expect(new AppError('QUOTA_EXCEEDED', 'used').statusIn(errorCatalogue)).toBe(402);
    expect(new NotFoundError('VERIFICATION_NOT_FOUND', 'gone').statusIn(errorCatalogue)).toBe(404);
    expect(new AppError('NO_SUCH_CODE' as never, '?').statusIn(errorCatalogue)).toBe(500);
  });

  it('says every 4xx code of the catalogue is the user’s and every 5xx the service’s', () => {
    for (const [code, status] of Object.entries(errorCatalogue)) {
      expect({ code, user: new AppError(code as never, code).isUserError(errorCatalogue) }).toEqual({ code, user: status >= 400 && status < 500 });
    }
    expect(new WrongExpectedRevisionError('s', 1n, 2n).isUserError(errorCatalogue)).toBe(false);
    expect(new AppError('NO_SUCH_CODE' as never, '?').isUserError(errorCatalogue)).toBe(false);
  });
});

// Domain errors: every failure the service reports carries a stable problem `code` and status.
// GraphQL resolvers throw these; the REST adapter turns them into RFC 9457 problem details.

export interface FieldError {
  field: string;
  message: string;
}

export class DomainError extends Error {
  override name = "DomainError";
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

export const validationError = (message: string, errors?: FieldError[]) =>
  new DomainError("validation-error", 400, message, errors ? { errors } : {});

export const notFound = (code: string, message: string) => new DomainError(code, 404, message);

export const forbidden = (code: string, message: string) => new DomainError(code, 403, message);

export const rateLimited = (retryAfterSeconds: number) =>
  new DomainError("rate-limited", 429, `Too many requests; retry after ${retryAfterSeconds} seconds.`, {
    headers: { "Retry-After": String(retryAfterSeconds) },
  });

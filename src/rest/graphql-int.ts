// Request integers reach the route's GraphQL operation as Int (32-bit signed): a JSON schema
// integer without these bounds would let a larger one through to a coercion failure.
export const GRAPHQL_INT = { minimum: -2_147_483_648, maximum: 2_147_483_647 } as const;

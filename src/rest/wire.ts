// A wire shape's GraphQL selection, derived from its JSON Schema: the API names members
// snake_case, the GraphQL fields are the same names in camelCase.
import type { JSONSchema } from "./schemas.ts";

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The object component a member is (a reference, or an array of references), or null. A component
 * that is not an object of members (a `oneOf` of variants, as a Message's content) is a GraphQL
 * JSON scalar: a leaf.
 */
function componentOf(member: JSONSchema, components: Record<string, JSONSchema>): JSONSchema | null {
  const target = (member.$ref ?? (member.items as JSONSchema | undefined)?.$ref) as string | undefined;
  if (target === undefined) return null;
  const name = target.slice(target.lastIndexOf("/") + 1);
  const schema = components[name];
  if (!schema) throw new Error(`selection of an undeclared component: ${name}`);
  return schema.properties ? schema : null;
}

/**
 * The selection of every member of `schema`, each aliased from its camelCase field. A member that
 * is an object component is selected member by member; any other (scalars, JSON) is a leaf.
 */
export function selectionOf(schema: JSONSchema, components: Record<string, JSONSchema>): string {
  return Object.entries(schema.properties as Record<string, JSONSchema>)
    .map(([name, member]) => {
      const field = camel(name);
      const aliased = field === name ? name : `${name}: ${field}`;
      const component = componentOf(member, components);
      return component ? `${aliased} { ${selectionOf(component, components)} }` : aliased;
    })
    .join(" ");
}

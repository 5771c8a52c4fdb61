/**
 * ESLint rule `fairway/front-door` (docs/architecture.md, "The front door"): outside engine/,
 * the queue is read through `Projection`, never through its replay state. Flags `p.state`,
 * `const { state } = p` and the type `Projection['state']` where the type checker says `p`
 * is the engine's `Projection` (or a union holding it), so a Work's or a Claim's own `state`
 * field is not mistaken for it. Needs typed linting (parserOptions.project).
 */
const PROJECTION_MODULE = /[\\/]engine[\\/]replay[\\/]projection\.ts$/;

function isProjectionType(checker, type) {
  const parts = type.isUnion() ? type.types : [type];
  return parts.some((t) => {
    const symbol = t.getSymbol() ?? t.aliasSymbol;
    return symbol !== undefined && symbol.getName() === 'Projection'
      && (symbol.getDeclarations() ?? []).some((d) => PROJECTION_MODULE.test(d.getSourceFile().fileName));
  });
}

export const frontDoor = {
  meta: {
    type: 'problem',
    docs: { description: 'read the queue through Projection, not its replay state' },
    messages: {
      state: 'Projection.state is engine-internal: read the queue through Projection (docs/architecture.md, "The front door")',
    },
    schema: [],
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (services?.program === undefined || services.program === null) return {};
    const checker = services.program.getTypeChecker();
    const projection = (node) => isProjectionType(checker, services.getTypeAtLocation(node));
    return {
      MemberExpression(node) {
        if (!node.computed && node.property.type === 'Identifier' && node.property.name === 'state' && projection(node.object)) {
          context.report({ node: node.property, messageId: 'state' });
        }
      },
      ObjectPattern(node) {
        const key = node.properties.find((p) => p.type === 'Property' && !p.computed && p.key.type === 'Identifier' && p.key.name === 'state');
        if (key !== undefined && projection(node)) context.report({ node: key, messageId: 'state' });
      },
      TSIndexedAccessType(node) {
        const index = node.indexType;
        if (index.type === 'TSLiteralType' && index.literal.type === 'Literal' && index.literal.value === 'state' && projection(node.objectType)) {
          context.report({ node: index, messageId: 'state' });
        }
      },
    };
  },
};

// Prints the standard introspection query of graphql-js (the npm `graphql`
// package GraphiQL uses), with the options GraphiQL 5 sends by default
// (`graphiql`) or with every option on (`full`). resolvers/testdata holds
// both; web/test.sh fails when they differ from what this prints, and the Go
// test TestStandardIntrospectionQueryIsAccepted checks that the gateway
// answers them with its default limits.
import { getIntrospectionQuery } from 'graphql';

const options = {
  graphiql: { inputValueDeprecation: false, schemaDescription: false },
  full: {
    descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true,
    schemaDescription: true, inputValueDeprecation: true, oneOf: true,
  },
};
const which = process.argv[2];
if (!options[which]) {
  console.error('usage: node e2e/introspection-query.mjs graphiql|full');
  process.exit(2);
}
process.stdout.write(getIntrospectionQuery(options[which]));

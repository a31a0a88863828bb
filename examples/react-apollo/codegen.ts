import type { CodegenConfig } from '@graphql-codegen/cli';
import { addTypenameSelectionDocumentTransform } from '@graphql-codegen/client-preset';

// GraphQL Codegen's client preset: typed documents in src/gql/ from the
// gateway's whole SDL as checked in (schema/schema.graphql: queries,
// mutations and subscriptions; the same text the gateway serves at
// /graphql/schema.graphql while introspection is on) and every
// graphql(`…`) call in src/.
const config: CodegenConfig = {
  schema: '../../schema/schema.graphql',
  documents: ['src/**/*.{ts,tsx}', '!src/gql/**'],
  ignoreNoDocuments: false,
  generates: {
    './src/gql/': {
      preset: 'client',
      config: {
        // scalar Time is an RFC 3339 string with an offset
        // ("2024-05-01T12:34:56.789Z"): it arrives as a string in JSON, so
        // it is a string here; parse it with new Date(value) where needed.
        scalars: { Time: 'string' },
        enumsAsTypes: true,
        useTypeImports: true,
      },
      presetConfig: {
        fragmentMasking: false,
        // Trusted documents: src/gql/persisted-documents.json, the manifest
        // the gateway loads with -trusted-documents; each document carries
        // its id in __meta__.hash, which the app's PersistedQueryLink sends.
        persistedDocuments: true,
      },
      // Apollo Client adds __typename to every selection set before it sends
      // a document (its cache needs it, and relayStylePagination merges
      // pages by it): add it here too, so the manifest holds the document
      // Apollo sends, and the hash matches.
      documentTransforms: [addTypenameSelectionDocumentTransform],
    },
  },
};

export default config;

import { StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ApolloProvider } from '@apollo/client/react';
import { App } from './App';
import { newClient } from './apollo';
import { graphqlURL, initialLanguage, initialProduct, liveTransport, trustedDocuments } from './settings';

function Root() {
  const [liveStatus, setLiveStatus] = useState(`${liveTransport}: idle`);
  const [client] = useState(() =>
    newClient({
      url: graphqlURL,
      transport: liveTransport,
      trustedDocuments,
      onLiveStatus: (s) => setLiveStatus(`${liveTransport}: ${s}`),
    }),
  );
  return (
    <ApolloProvider client={client}>
      <App productId={initialProduct} initialLanguage={initialLanguage} liveStatus={liveStatus} />
    </ApolloProvider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Root />
  </StrictMode>,
);

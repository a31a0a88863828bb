// Package web serves the gateway's browser front ends from the binary:
// GraphiQL (built from the npm graphiql package by build.sh into dist/) and a
// small product-page demo (demo/, plain HTML and one ES module). Nothing is
// loaded from any other host, and every response says so in its
// Content-Security-Policy.
package web

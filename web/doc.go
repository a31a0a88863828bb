// Package web serves the gateway's browser front ends from the binary:
// GraphiQL (built from the npm graphiql package by build.sh into dist/), the
// reviews widget a shop embeds (widget/, plain ES modules and a style sheet,
// loadable from any origin) and a demo shop page that shows it (demo/).
// Nothing is loaded from any other host, and every response says so in its
// Content-Security-Policy.
package web

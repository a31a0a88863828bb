package resolvers

import "github.com/acme/comments-gateway/store"

// textInput is one text argument of a mutation: its GraphQL path and value
// (nil: not given).
type textInput struct {
	path  string // input.body
	value *string
	max   int
	// multiline allows newline and tab (the body).
	multiline bool
}

// checkTextInputs checks a mutation's text arguments with the store's rules
// (store.ValidateText), before the store does, so that the error names the
// argument as the client wrote it (input.body, not body).
func checkTextInputs(fields ...textInput) error {
	for _, f := range fields {
		if f.value == nil {
			continue
		}
		check := store.ValidateText
		if f.multiline {
			check = store.ValidateMultilineText
		}
		if err := check(f.path, *f.value, f.max); err != nil {
			return err
		}
	}
	return nil
}

// commentTexts returns the text arguments of createComment or updateComment
// (author is nil when the caller's token, not the input, names the author).
func commentTexts(author, title, body *string) []textInput {
	return []textInput{
		{path: "input.author", value: author, max: store.MaxAuthorLen},
		{path: "input.title", value: title, max: store.MaxTitleLen},
		{path: "input.body", value: body, max: store.MaxBodyLen, multiline: true},
	}
}

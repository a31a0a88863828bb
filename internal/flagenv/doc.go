// Package flagenv parses a command's flags the way every command of the
// gateway does: a flag's default, overridden by its COMMENTS_<FLAG>
// environment variable (-rand-seed is COMMENTS_RAND_SEED), overridden by
// the command line. A bad flag is one error line naming the nearest defined
// flag and the command's -h, never the whole usage; -h prints the usage,
// the command's description above its flags.
//
// New makes the flag set, Parse applies the three layers, Bytes is a flag
// of a byte size (64MB, 512KiB) and WithHint adds the line that says what
// to run next to an error.
package flagenv

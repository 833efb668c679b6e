/* The one escaping rule for untrusted text (util layer: libc only).
 *
 * Text read from a file, a server or the command line is shown to a person
 * in an error line or a report. Shown as it is, a newline forges a second
 * "rightsize:" line (or a GitHub "::error::" workflow command), an ESC byte
 * drives the terminal and a huge value drowns the message. So every byte
 * that is not printable text is written as an escape, and the text is cut
 * at a cap with "..." (docs/cli.md, "Untrusted text"). */
#ifndef RIGHTSIZE_ESCAPE_H
#define RIGHTSIZE_ESCAPE_H

#include <stddef.h>

/* The longest untrusted value (in input bytes) quoted in a message. */
#define RS_ESCAPE_QUOTE_MAX 64

/* Writes s[0..n) into dst (always NUL-terminated when size > 0), escaping:
 * newline, carriage return and tab as \n \r \t, every other control byte,
 * DEL, a byte that does not start valid UTF-8 and an encoded C1 control
 * (U+0080..U+009F) as \xHH; valid UTF-8 is kept. At most cap input bytes
 * are shown (0: no cap beyond size); whatever does not fit ends in "...".
 * Returns the length written. */
size_t rs_escape_text(char *dst, size_t size, const char *s, size_t n, size_t cap);

/* s[0..n) as Markdown text: rs_escape_text (no cap), then every character
 * that could start markup (\ ` * _ { } [ ] < > ( ) # + ! | ~ &) escaped with
 * a backslash, so an endpoint name stays text in a table or a heading.
 * Text past 511 escaped bytes, or past size, is cut. Returns the length. */
size_t rs_escape_markdown(char *dst, size_t size, const char *s, size_t n);

#endif

// Package basic owns the "basic" tool group: tools that need nothing but the
// process itself. It has two, both run without approval:
//
//   - time: the current time in an IANA time zone (RFC 3339, weekday, Unix
//     time);
//   - calculate: an arithmetic expression evaluated by the expr library,
//     restricted to numbers, arithmetic operators and a fixed set of math
//     functions and constants.
//
// Among threadbot packages it imports only core/executor; never an
// adapter, storage or config.
package basic

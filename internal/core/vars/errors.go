package vars

import "errors"

// ErrNotFound means that no variable has the given name. Errors that wrap it
// read like `variable "x" not found`.
var ErrNotFound = errors.New("not found")

// ErrInvalidName means that a variable name is empty or contains a character
// other than letters, digits, '_', '-', '.' and '/'.
var ErrInvalidName = errors.New("invalid variable name")

// ErrTooLarge means that a single variable is larger than the byte budget
// (Options.MaxBytes) of the whole System, so it can never be stored.
var ErrTooLarge = errors.New("variable larger than the variable byte budget")

// ErrProtected means that the model tried to overwrite a RULE variable or to
// create a variable in the reserved "Rule/" namespace.
var ErrProtected = errors.New("RULE variables are read-only")

// ErrValueRequired means that the model tried to create a variable without a
// value (or with an empty one).
var ErrValueRequired = errors.New("a new variable needs a non-empty value")

// ErrCircular means that $VAR_REF references form a cycle. Errors that wrap
// it name the cycle, like "circular variable reference: a -> b -> a".
var ErrCircular = errors.New("circular variable reference")

// ErrSliceNonString means that a sliced reference ($VAR_REF{{name:start:length}})
// points at a variable stored from a structured (non-string) value: a
// ToolCallArgs variable, whose value is a JSON object. Slicing it would cut
// the JSON apart; reference it whole instead.
var ErrSliceNonString = errors.New("cannot slice non-string variable")

// ErrBadSlice means that the start or length of a sliced reference is
// negative or too large to be a number.
var ErrBadSlice = errors.New("bad slice: start and length must be non-negative integers")

// ErrExpansionTooLarge means that expanding the references in one string
// would produce more than Options.MaxExpand characters.
var ErrExpansionTooLarge = errors.New("variable reference expansion too large")

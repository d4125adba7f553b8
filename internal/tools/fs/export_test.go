package fs

// SetBeforeOpen installs a hook that runs between the check of a path and
// its use, with the resolved path, and returns a function that removes it.
func SetBeforeOpen(f func(path string)) (restore func()) {
	old := beforeOpen
	beforeOpen = func(t target) { f(t.Path) }
	return func() { beforeOpen = old }
}

// Levenshtein exports levenshtein for tests.
var Levenshtein = levenshtein

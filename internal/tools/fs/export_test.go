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

// Replace exports replace for benchmarks: the new content and the name of
// the replacer that matched.
func Replace(content, old, new string, all bool) (string, string, error) {
	r, err := replace(content, old, new, all)
	return r.content, r.replacer, err
}

// SetCountLimit sets the largest file whose lines read counts and returns
// a function that restores it.
func SetCountLimit(n int64) (restore func()) {
	old := countLimit
	countLimit = n
	return func() { countLimit = old }
}

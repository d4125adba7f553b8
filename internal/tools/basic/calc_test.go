package basic

import (
	"errors"
	"strings"
	"testing"
)

func TestCalculate(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"1 + 2", "3"},
		{"2 * (3 + 4)", "14"},
		{"7 / 2", "3.5"},
		{"-3 + +5", "2"},
		{"2^10", "1024"},
		{"2**10", "1024"},
		{"2^3^2", "512"}, // right-associative
		{"10 % 3", "1"},
		{"5.5 % 2", "1.5"},
		{"0.1 + 0.2", "0.3"},
		{"1/3", "0.333333333333333"},
		{"sqrt(16)", "4"},
		{"abs(-2.5)", "2.5"},
		{"min(3, 1, 2)", "1"},
		{"max(3, 1, 2)", "3"},
		{"round(2.5)", "3"},
		{"round(3.14159, 2)", "3.14"},
		{"floor(-1.5)", "-2"},
		{"ceil(1.2)", "2"},
		{"log(e)", "1"},
		{"log(8, 2)", "3"},
		{"log10(1000)", "3"},
		{"sin(0)", "0"},
		{"cos(pi)", "-1"},
		{"pi", "3.14159265358979"},
		{"2 × 3 ÷ 4 − 1", "0.5"},
		{"2^53 - 1", "9007199254740991"},
		{"1e21", "1e+21"},
		{"9223372036854775807 + 1", "9.22337203685478e+18"}, // no integer wrap-around
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := Calculate(tt.in)
			if err != nil {
				t.Fatalf("Calculate(%q): %v", tt.in, err)
			}
			if got := FormatNumber(v); got != tt.want {
				t.Errorf("Calculate(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestCalculateErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string // a substring of the error
	}{
		{"", "empty"},
		{"   ", "empty"},
		{"1 / 0", "division by zero"},
		{"5 % 0", "division by zero"},
		{"1 / (2 - 2)", "division by zero"},
		{"1 +", "syntax error"},
		{"(1 + 2", "syntax error"},
		{"x + 1", `unknown name "x"`},
		{"foo(1)", `unknown function "foo"`},
		{"len(\"abc\")", `unknown function "len"`},
		{`"a" + "b"`, "text is not supported"},
		{"1 == 1", `operator "==" is not supported`},
		{"1 < 2 ? 1 : 2", "not supported"},
		{"true", "not supported"},
		{"[1, 2]", "list"},
		{"{a: 1}", "map"},
		{"let x = 1; x", "not supported"},
		{"1..3", `operator ".." is not supported`},
		{"!1", `operator "!" is not supported`},
		{"sqrt", "is a function"},
		{"sqrt(1, 2)", "sqrt takes 1 argument"},
		{"max()", "at least 1"},
		{"sqrt(-1)", "must not be negative"},
		{"log(0)", "greater than 0"},
		{"log(8, 1)", "base"},
		{"asin(2)", "between -1 and 1"},
		{"10^400", "too large"},
		{"0^-1", "infinite"},
		{"round(1, 0.5)", "digits"},
		{strings.Repeat("1+", 600) + "1", "limit is 1000"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := Calculate(tt.in)
			if err == nil {
				t.Fatalf("Calculate(%q) = %v, want an error containing %q", tt.in, v, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Calculate(%q) error = %q, want it to contain %q", tt.in, err, tt.want)
			}
		})
	}
	if _, err := Calculate("1/0"); !errors.Is(err, ErrDivisionByZero) {
		t.Errorf("Calculate(1/0) error = %v, want ErrDivisionByZero", err)
	}
}

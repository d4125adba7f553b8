package script

import (
	"reflect"
	"testing"
)

func TestParseDocstring(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want docstring
	}{
		{"empty", "", docstring{Params: map[string]string{}}},
		{"summary only", "Add two numbers\nand return the sum.\n\nMore detail.", docstring{
			Summary: "Add two numbers and return the sum.", Params: map[string]string{}}},
		{"google", `Add an item.

Longer text.

Args:
    name: The item's name.
    quantity (int, optional): How many.
        Must be positive.
    *tags: Labels.

Returns:
    dict: The stored item.

Raises:
    ValueError: when quantity < 1.`, docstring{
			Summary: "Add an item.",
			Params:  map[string]string{"name": "The item's name.", "quantity": "How many. Must be positive.", "tags": "Labels."},
			Returns: "The stored item.",
		}},
		{"google without blank line", "Scale values.\nArgs:\n  values: Numbers.\n", docstring{
			Summary: "Scale values.", Params: map[string]string{"values": "Numbers."}}},
		{"numpy", `Scale values.

Parameters
----------
values : list of float
    The numbers
    to scale.
x, y : int
    Coordinates.
flag

Returns
-------
list of float
    The scaled numbers.

Examples
--------
>>> scale([1])`, docstring{
			Summary: "Scale values.",
			Params:  map[string]string{"values": "The numbers to scale.", "x": "Coordinates.", "y": "Coordinates.", "flag": ""},
			Returns: "The scaled numbers.",
		}},
		{"sphinx", `Greet someone.

:param who: Whom to greet,
    by name.
:param bool polite: Whether to be polite.
:type who: str
:returns: The greeting.`, docstring{
			Summary: "Greet someone.",
			Params:  map[string]string{"who": "Whom to greet, by name.", "polite": "Whether to be polite."},
			Returns: "The greeting.",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseDocstring(tc.doc); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseDocstring:\n got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

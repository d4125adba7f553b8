package storagetest

import (
	"reflect"
	"testing"

	"github.com/threadbot/threadbot/internal/storage"
)

func testJournal(t *testing.T, s storage.Store) {
	ctx := t.Context()
	list := func(platform string) []storage.JournalEntry {
		t.Helper()
		es, err := s.Journal(ctx, platform)
		if err != nil {
			t.Fatalf("Journal: %v", err)
		}
		return es
	}
	for _, e := range []storage.JournalEntry{{ID: "Ev2", Payload: []byte(`{"b":1}`)}, {ID: "Ev1", Payload: []byte(`{"a":1}`)}} {
		if err := s.JournalPut(ctx, "slack", e.ID, e.Payload); err != nil {
			t.Fatalf("JournalPut: %v", err)
		}
	}
	if err := s.JournalPut(ctx, "slack", "Ev2", []byte(`{"changed":1}`)); err != nil {
		t.Fatalf("JournalPut again: %v", err)
	}
	if err := s.JournalPut(ctx, "discord", "Ev1", []byte(`{}`)); err != nil {
		t.Fatalf("JournalPut(discord): %v", err)
	}
	want := []storage.JournalEntry{{ID: "Ev2", Payload: []byte(`{"b":1}`)}, {ID: "Ev1", Payload: []byte(`{"a":1}`)}}
	if got := list("slack"); !reflect.DeepEqual(got, want) {
		t.Errorf("Journal(slack) = %+v, want %+v (in put order, the first payload kept)", got, want)
	}
	if err := s.JournalDelete(ctx, "slack", "Ev2"); err != nil {
		t.Fatalf("JournalDelete: %v", err)
	}
	if err := s.JournalDelete(ctx, "slack", "never"); err != nil {
		t.Errorf("JournalDelete(missing): %v", err)
	}
	if got := list("slack"); len(got) != 1 || got[0].ID != "Ev1" {
		t.Errorf("after delete: %+v", got)
	}
	if got := list("discord"); len(got) != 1 {
		t.Errorf("another platform's entry was touched: %+v", got)
	}
	wantErr(t, "JournalPut(empty id)", s.JournalPut(ctx, "slack", "", nil), storage.ErrInvalid)
}

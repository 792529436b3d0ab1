package registry

import (
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New[int]("widget")
	r.Add("b", 2)
	r.Add("a-1", 1)
	if got := strings.Join(r.Names(), ","); got != "a-1,b" {
		t.Errorf("Names = %s", got)
	}
	if all := r.All(); len(all) != 2 || all[0] != 1 || all[1] != 2 {
		t.Errorf("All = %v", all)
	}
	if v, err := r.Lookup("b"); v != 2 || err != nil {
		t.Errorf("Lookup(b) = %v, %v", v, err)
	}
	if _, err := r.Lookup("zzz"); err == nil || !strings.Contains(err.Error(), `unknown widget "zzz"; known widgets: a-1, b`) {
		t.Errorf("Lookup(zzz) error = %v", err)
	}
	if _, err := r.Lookup("a-2"); err == nil || !strings.Contains(err.Error(), `unknown widget "a-2" (did you mean "a-1"?); known widgets: a-1, b`) {
		t.Errorf("Lookup(a-2) error = %v", err)
	}
	for _, bad := range []string{"b", "A", "a_b", "-a", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%q) did not panic", bad)
				}
			}()
			r.Add(bad, 0)
		}()
	}
}

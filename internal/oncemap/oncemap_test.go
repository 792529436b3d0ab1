package oncemap

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestDoRunsOncePerKey(t *testing.T) {
	var m Map[string, any]
	var calls atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			key := []string{"a", "b"}[i%2]
			v, err := m.Do(key, func() (any, error) { calls.Add(1); return key + "!", nil })
			if err != nil || v != key+"!" {
				t.Errorf("Do(%s) = %v, %v", key, v, err)
			}
		}(i)
	}
	wg.Wait()
	if calls.Load() != 2 || m.Len() != 2 {
		t.Fatalf("compute ran %d times for 2 keys", calls.Load())
	}
	boom := errors.New("boom")
	m.Do("e", func() (any, error) { return nil, boom })
	if _, err := m.Do("e", func() (any, error) { return 1, nil }); err != boom {
		t.Fatalf("the first error is not kept: %v", err)
	}
}

// TestDeleteForgets: a deleted key is computed again; DeleteFunc deletes
// exactly the keys it selects.
func TestDeleteForgets(t *testing.T) {
	var m Map[string, int]
	calls := 0
	get := func(k string) int {
		v, _ := m.Do(k, func() (int, error) { calls++; return calls, nil })
		return v
	}
	get("a")
	get("b")
	get("c")
	m.Delete("a")
	m.DeleteFunc(func(k string) bool { return k == "b" })
	if a, b, c := get("a"), get("b"), get("c"); a != 4 || b != 5 || c != 3 || m.Len() != 3 {
		t.Errorf("after deleting a and b: a = %d, b = %d, c = %d (want recomputed 4, 5 and the old 3), %d keys", a, b, c, m.Len())
	}
}

package engine

import (
	"testing"
	"unsafe"
)

// TestJobSize guards the engine job's size (issue 19: one per job, 112
// bytes before its fields were ordered without padding).
func TestJobSize(t *testing.T) {
	if n := unsafe.Sizeof(Job{}); n != 104 {
		t.Errorf("engine.Job is %d bytes, want 104", n)
	}
}

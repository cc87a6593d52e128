//go:build unix

package oracle

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRemoveStaleDirs: the directory of a test binary that died is removed at the next start;
// a live owner's is kept.
func TestRemoveStaleDirs(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	mk := func(pid int) string {
		d, err := os.MkdirTemp("", dirPrefix)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		if err := os.WriteFile(filepath.Join(d, ownerFile), []byte(strconv.Itoa(pid)), 0o600); err != nil {
			t.Fatal(err)
		}
		return d
	}
	stale, live := mk(dead.Process.Pid), mk(os.Getppid())
	removeStaleDirs()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("%s (owner %d, ended) is still there", stale, dead.Process.Pid)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("%s (owner alive) was removed: %v", live, err)
	}
}

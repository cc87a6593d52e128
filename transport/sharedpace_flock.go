//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package transport

import (
	"io"
	"os"
	"syscall"
)

var errEOF = io.EOF

// lockFile takes the file's exclusive lock, waiting for it. The kernel releases it when the
// holder closes the file or dies.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func unlockFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// processAlive reports whether the process pid may still be running (0, unknown: no).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

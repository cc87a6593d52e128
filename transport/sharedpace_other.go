//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package transport

import (
	"errors"
	"io"
	"os"
)

var errEOF = io.EOF

// Without flock the window cannot be shared safely: the pacer falls back to its own.
func lockFile(*os.File) error { return errors.New("file locks are not supported on this platform") }

func unlockFile(*os.File) {}

// processAlive: without a shared window every start is this process's own.
func processAlive(pid int) bool { return pid == thisProcess }

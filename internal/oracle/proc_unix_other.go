//go:build unix && !linux

package oracle

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr) {}

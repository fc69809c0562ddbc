//go:build unix && !linux

package trial

import "syscall"

// groupAttr puts a trainer in a process group of its own.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

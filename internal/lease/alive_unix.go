//go:build unix

package lease

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists on this
// host (signal 0 checks without sending; EPERM means it exists under
// another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

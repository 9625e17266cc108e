//go:build unix

package runfolder

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting: false if another open file holds it.
// flock's lock belongs to the open file, so a second open of the folder (or of its lock file)
// in the same process is refused as another process would be. f may be a folder, opened
// read-only.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		default:
			return false, err
		}
	}
}

// probeLock tells whether f's lock is free (nobody holds it exclusively), taking it shared
// without waiting and letting it go at once.
func probeLock(f *os.File) (free bool, err error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		default:
			return false, err
		}
	}
}

package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// lockFile, in a run folder, is held by the process training in it (an OS lock on the open
// file, which the OS releases when that process ends, however it ends). The file itself stays:
// its presence means nothing, so a killed trainer leaves no stale lock behind. It names its
// holder for the message of the process it refuses.
const lockFile = "lock"

// ErrBusy is the error of a run folder another process trains in.
var ErrBusy = errors.New("in use")

// folderLock is a run folder held by this process.
type folderLock struct{ f *os.File }

// lockFolder takes dir for this process, creating it if needed. It fails at once, with an
// error wrapping ErrBusy that names the holder, if another process (or another run in this
// one) holds it.
func lockFolder(dir string) (*folderLock, error) {
	return lockFolderFor(dir, "run folder %s is %w: %s trains in it; wait for it to stop or give another --run")
}

// lockFolderFor is lockFolder with the refusal's message: a format of the folder, ErrBusy and
// the holder.
func lockFolderFor(dir, refusal string) (*folderLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if !held {
		holder, _ := os.ReadFile(path)
		f.Close()
		who := strings.TrimSpace(string(holder))
		if who == "" {
			who = "another process"
		}
		return nil, fmt.Errorf(refusal, dir, ErrBusy, who)
	}
	host, _ := os.Hostname()
	who := fmt.Sprintf("zero (pid %d on %s, since %s)", os.Getpid(), host, time.Now().Format("2006-01-02 15:04:05"))
	// Only a message reads it: a failed write leaves the refused process saying "another process".
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(who+"\n"), 0)
	}
	return &folderLock{f}, nil
}

// unlock releases the folder (closing the file releases the OS lock).
func (l *folderLock) unlock() error { return l.f.Close() }

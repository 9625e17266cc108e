package train

import (
	"errors"
	"fmt"
	"io"
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
	// A watcher (Holder) holds the lock shared for an instant: a refusal is taken as final
	// only after probeWait.
	for wait := time.Duration(0); err == nil && !held && wait < probeWait; wait += probeWait / 10 {
		time.Sleep(probeWait / 10)
		held, err = tryLock(f)
	}
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

// probeWait is how long lockFolder tries again before refusing the folder: far longer than a
// watcher's probe holds the lock.
const probeWait = 100 * time.Millisecond

// Holder tells whether a process trains in the run folder dir now, and who: the line its
// holder wrote in the lock file ("zero (pid N on HOST, since …)", or "another process"). It
// changes nothing and may be called while the run trains (zero serve's dashboard does, every
// few seconds): it takes the lock shared for an instant, which a trainer starting at that
// moment waits out. A folder without a lock file has never been trained in. Where the OS has
// no file locks (lock_other.go) nobody is ever said to train.
func Holder(dir string) (holder string, training bool, err error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	free, err := probeLock(f)
	if err != nil || free {
		return "", false, err
	}
	who, _ := io.ReadAll(io.LimitReader(f, 512))
	holder = strings.TrimSpace(string(who))
	if holder == "" {
		holder = "another process"
	}
	return holder, true, nil
}

// unlock releases the folder (closing the file releases the OS lock).
func (l *folderLock) unlock() error { return l.f.Close() }

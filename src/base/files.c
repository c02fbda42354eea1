#define _DEFAULT_SOURCE /* gethostname, kill */
/* Files written whole under a temporary name and renamed (the output, checkpoints): temporary
 * names, stale temporary files, the last check before rename(2), the write itself. Declared in
 * include/dike/outpath.h; in the base layer because the engine's checkpoints use them as much as
 * the HDF5 writer does. */
#include "base/files.h"
#include "dike/outpath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *dike_file_kind(mode_t m)
{
    if (S_ISDIR(m)) return "a folder";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

static void host_name(char *host, size_t n)
{
    if (gethostname(host, n - 1) != 0 || !host[0])
        snprintf(host, n, "host");
    host[n - 1] = '\0';
    /* '/' cannot be in a file name; nothing else needs escaping */
    for (char *p = host; *p; p++)
        if (*p == '/')
            *p = '_';
}

void dike_tmp_name(const char *path, char *out, size_t n)
{
    char host[64];
    host_name(host, sizeof host);
    snprintf(out, n, "%s.tmp-%s-%ld", path, host, (long)getpid());
}

int dike_tmp_sweep(const char *path)
{
    if (!path || !path[0])
        return 0;
    char *dcopy = dike_xstrdup(path), *bcopy = dike_xstrdup(path);
    const char *dir = dirname(dcopy), *base = basename(bcopy);
    char host[64], prefix[PATH_MAX];
    host_name(host, sizeof host);
    int plen = snprintf(prefix, sizeof prefix, "%s.tmp-%s-", base, host), removed = 0;
    DIR *d = plen > 0 && (size_t)plen < sizeof prefix ? opendir(dir) : NULL;
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (strncmp(de->d_name, prefix, (size_t)plen) != 0)
            continue;
        const char *digits = de->d_name + plen;
        char *end = NULL;
        errno = 0;
        long pid = strtol(digits, &end, 10);
        /* only "<prefix><decimal pid>" exactly, a pid that is not ours and not alive here */
        if (!*digits || *end || errno || pid <= 1 || pid == (long)getpid() || digits[0] == '0')
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char full[PATH_MAX];
        int fl = snprintf(full, sizeof full, "%s/%s", dir, de->d_name);
        struct stat sb;
        if (fl <= 0 || (size_t)fl >= sizeof full || lstat(full, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        if (unlink(full) == 0) {
            removed++;
            char msg[PATH_MAX + 160];
            snprintf(msg, sizeof msg, "removed %s, the temporary file of a run that ended without "
                     "finishing (pid %ld on this host no longer exists)", full, pid);
            dike_eprint("dike-emu: ", msg); /* the name may hold control characters */
        }
    }
    if (d)
        closedir(d);
    free(dcopy);
    free(bcopy);
    return removed;
}

int dike_rename_target_ok(const char *path, const char *what, dike_err *e)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode))
        return 0;
    return dike_err_set(e, DIKE_EIO, "%s: cannot write %s: it is now %s, refusing to replace it", path,
                        what, dike_file_kind(sb.st_mode));
}

int dike_write_whole_file(const char *path, const void *bytes, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return errno ? errno : EIO;
    const char *p = bytes;
    size_t done = 0;
    int err = 0;
    while (done < len && !err) {
        ssize_t k = write(fd, p + done, len - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            err = k < 0 ? errno : EIO;
        else
            done += (size_t)k;
    }
    if (!err && fsync(fd) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    return err;
}

// A file that was not analysed, and why: a sidecar, another file, a checkpoint whose step another
// keeps, or one that cannot be read. Discovery finds them; a run's results keep them, and the
// results file stores them.
#pragma once

#include <QString>

namespace rankscope {

struct SkippedFile {
    QString path;
    QString reason;
    bool duplicate = false; // a checkpoint whose step another checkpoint keeps
    bool problem = false;   // looks like (part of) a checkpoint and cannot be read: an error of the run
};

} // namespace rankscope

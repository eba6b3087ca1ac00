// Where a folder's results are cached when no results file is named (--results): in the user's
// cache, one file per folder, named by a hash of its absolute path, so that two runs never share
// one. A policy of where files lie, kept apart from the format of what is in them (ResultsFile).
#pragma once

#include <QString>

namespace rankscope {

class ResultsCacheLocation {
public:
    // <cache>/runs/<sha1 of the folder's clean absolute path, 20 hex digits>.h5; the same for
    // every spelling of one folder (trailing slash, relative to the working folder).
    static QString forFolder(const QString &folder);
    // A LoRA run's merged weights with the base at `base` (--base): a file of their own beside the
    // run's, so that the run's updates and its merged weights never replace each other.
    static QString forMergedFolder(const QString &folder, const QString &base);
    // The base's own W₀ of the matrices the run at `folder` adapts (--base): a file of their own too.
    static QString forBaseOfFolder(const QString &folder, const QString &base);
};

} // namespace rankscope

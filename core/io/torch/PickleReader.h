// A pickle reader for protocols 2–5 that never imports or calls anything. It records globals,
// builds tensors and storages from torch's rebuild functions and persistent ids, keeps plain
// data, and turns every other object into an opaque value. Every global that
// torch.load(weights_only=True) does not allow is listed: such a pickle is unsafe to load with
// torch, though reading it here runs nothing.
#pragma once

#include "io/torch/PickleValue.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace rankscope {

// A call the pickle asks for with REDUCE: the global called, what it is given, and what the reader
// made of it (nothing was called).
struct PickleCall {
    QString callable;         // qualified ("builtins.getattr")
    PickleRef args = nullptr; // the argument tuple as the pickle gives it
    PickleRef value = nullptr;
};

struct PickleResult {
    std::shared_ptr<PickleArena> arena; // owns root and everything it refers to
    PickleRef root = nullptr;
    QString error; // empty on success
    // The globals it names that torch's weights_only policy refuses, each once, in order of
    // appearance ("posix.system"); what torch.load(weights_only=False) would import and call.
    QStringList unsafeGlobals;
    // Every global it names, each once, in order of appearance: for readers that allow only the
    // classes one writer uses (DCP's .metadata), whatever torch's policy would allow.
    QStringList globals;
    // Every REDUCE of a global, in order of appearance.
    QList<PickleCall> calls;
    // The globals put to some use other than being called by REDUCE (kept as data, given as an
    // argument, instantiated by NEWOBJ, OBJ or INST, dropped), each once, in order of appearance:
    // for readers that allow a callable only in the calls they check.
    QStringList globalsNotOnlyCalled;
};

PickleResult readPickle(const QByteArray &data);

} // namespace rankscope

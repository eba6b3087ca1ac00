// A pickle reader for protocols 2–5 that never imports or calls anything. It records globals,
// builds tensors and storages from torch's rebuild functions and persistent ids, keeps plain
// data, and turns every other object into an opaque value. Every global that
// torch.load(weights_only=True) does not allow is listed: such a pickle is unsafe to load with
// torch, though reading it here runs nothing.
#pragma once

#include "io/PickleValue.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace rankscope {

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
};

PickleResult readPickle(const QByteArray &data);

} // namespace rankscope

// A pickle reader for protocols 2–5 that never imports or calls anything. It records globals,
// builds tensors and storages from torch's rebuild functions and persistent ids, keeps plain
// data, and turns every other object into an opaque value. Globals that could run code
// (os.system, subprocess, builtins.eval, …) make the whole pickle refused as unsafe, the policy
// of torch.load(weights_only=True).
#pragma once

#include "io/PickleValue.h"

#include <QByteArray>
#include <QString>

namespace rankscope {

struct PickleResult {
    std::shared_ptr<PickleArena> arena; // owns root and everything it refers to
    PickleRef root = nullptr;
    QString error; // empty on success
    bool unsafe = false;
};

PickleResult readPickle(const QByteArray &data);

// True for globals that torch.load(weights_only=True) would refuse because they can run code.
bool isUnsafeGlobal(const QString &module, const QString &name);

} // namespace rankscope

// torch.load(weights_only=True)'s policy, as torch 2.10 and its main branch define it
// (torch/_weights_only_unpickler.py): the globals a weights file may name. Any other global is
// one torch refuses, and that torch.load(weights_only=False) would import and call: the file is
// unsafe, whatever the global looks like. An allow-list, because no deny-list of code-running
// globals is ever complete (cProfile.run, pydoc.pipepager, torch.serialization._load, …).
#pragma once

#include <QString>

namespace rankscope {

class TorchWeightsOnlyPolicy {
public:
    // "module.name" as torch looks it up: protocol 2 pickles carry Python 2 names (__builtin__
    // set), which torch maps to Python 3's with its own subset of _compat_pickle's tables.
    static QString qualifiedName(const QString &module, const QString &name);
    // Whether torch allows the global named by qualifiedName() by default.
    static bool allows(const QString &qualifiedName);
};

} // namespace rankscope

// A DeepSpeed save folder (deepspeed/runtime/engine.py `save_checkpoint`): one folder per tag
// (global_step300/, or any tag the script chose), `latest` naming the tag written last (rank 0
// writes it after every rank has saved the tag), and the zero_to_fp32.py recovery script.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"

namespace rankscope {

class DeepSpeedSaveFolder {
public:
    // Says what the folder was taken for, gives `latest` and zero_to_fp32.py their roles, and
    // leaves out a tag newer than the one `latest` names: DeepSpeed is still writing it. A
    // `latest` naming a tag that is not here is a problem of the run. Nothing for other folders.
    static void describe(const QString &root, CheckpointListing &listing);
    // The tag a `latest` file names (engine.py writes it with fd.write(tag); zero_to_fp32 strips
    // it), or empty and why not: unreadable, empty, or naming no folder of the save folder.
    static QString latestTag(const QString &path, QString *problem);
};

} // namespace rankscope

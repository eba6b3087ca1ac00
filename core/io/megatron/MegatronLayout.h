// How Megatron-LM's legacy ("torch" ckpt_format) saves lie on disk, as
// megatron/training/checkpointing.py writes them: <save>/latest_checkpointed_iteration.txt (the
// last complete iteration, or "release"), and per iteration a folder iter_NNNNNNN/ (or release/)
// with one folder per model-parallel rank, mp_rank_TT (PP 1) or mp_rank_TT_PPP (with an _EEE
// expert rank when EP > 1), each holding that rank's model_optim_rng.pt (torch.save) and, with the
// distributed optimizer, distrib_optim.pt. One iteration folder is one checkpoint.
#pragma once

#include "io/FolderWeights.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace rankscope {

struct MegatronRank {
    int tensor = 0;
    int pipeline = 0;
    int expert = 0;
    int numbers = 1; // how many the folder name has: 1 (mp_rank_TT), 2 (…_PPP) or 3 (…_EEE)
};

struct MegatronTracker {
    bool present = false;
    std::optional<qint64> iteration; // "release" is iteration 0, as read_metadata takes it
    QString text;                    // what the file says, for messages
    QString problem;                 // why it cannot be read
};

class MegatronLayout {
public:
    static const QString &trackerName();   // latest_checkpointed_iteration.txt
    static const QString &modelFileName(); // model_optim_rng.pt

    // mp_rank_01, mp_rank_01_002, mp_rank_01_002_003; nullopt for another name.
    static std::optional<MegatronRank> rankOf(const QString &folderName);
    // The rank of a model_optim_rng.pt, from the folder it lies in.
    static std::optional<MegatronRank> rankOfFile(const QString &path);
    // When `weights` is the listing of an iteration folder (iter_NNNNNNN or release holding
    // mp_rank_* folders): adds the iteration as one checkpoint of all its ranks' files (a rank
    // missing is its error), gives every file of the rank folders its role and reason, and takes
    // the rank folders off the subfolders to search. False, and nothing changed, otherwise.
    static bool readIteration(const QString &folder, FolderWeights &weights);

    static MegatronTracker readTracker(const QString &saveFolder);
    // "TP 2 × PP 2" of an iteration's files.
    static QString parallelismOf(const QStringList &files);
};

} // namespace rankscope

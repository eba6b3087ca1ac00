// A repository of the Hugging Face hub cache, read as one run whose checkpoints are its revisions.
// Training suites publish their checkpoints as revisions of one repository (Pythia's step143000,
// OLMo's stage1-step1000-tokens4B), and the cache keeps them as huggingface_hub 1.29 writes them
// (file_download.py, _snapshot_download.py, utils/_cache_manager.py):
//
//   models--ORG--NAME/           repo_folder_name(): "models" (datasets, spaces), then the id, "--" for "/"
//     refs/<revision>            a file holding the 40-hex commit hash, no newline; a revision
//                                with slashes (refs/pr/1) in folders of its own
//     snapshots/<commit>/<file>  the revision's files: relative links into blobs/ (copies where
//                                links cannot be made)
//     blobs/<etag>               the bytes, once per content; <etag>.incomplete while downloading
//
// Each snapshot a ref names is one checkpoint, read through its links, its step from the ref's name
// (step1000, stage1-step1000-tokens4B); `main` and other unnumbered refs naming a commit no
// numbered ref names give the unnumbered final checkpoint. Blobs are never checkpoints of their own.
// What cannot be read is named: a ref whose snapshot is missing or holds no weights (still being
// downloaded while a blob is .incomplete, for --watch to look again), a snapshot no ref names, a ref
// that holds no commit hash; two refs naming one snapshot are read once; two revisions whose weights
// are the same blobs are said to hold the same bytes, and both are read.
#pragma once

#include "analysis/discovery/CheckpointDiscovery.h"

#include <QString>

namespace rankscope {

class HubCacheLayout {
public:
    // A repository folder of the cache: named models--…, datasets--… or spaces--…, with snapshots/.
    static bool isRepository(const QString &folder);
    // "EleutherAI/pythia-70m" for models--EleutherAI--pythia-70m (as _scan_cached_repo reads it).
    static QString repositoryId(const QString &folder);
    static CheckpointListing read(const QString &repository);
    // The cache folder huggingface_hub uses (constants.py): $HF_HUB_CACHE, the older
    // $HUGGINGFACE_HUB_CACHE, $HF_HOME/hub, else $XDG_CACHE_HOME (or ~/.cache)/huggingface/hub.
    static QString cacheFolder();
    // The repository folder of model `id` ("meta-llama/Llama-3.2-1B") in that cache; empty when it
    // is not there.
    static QString cachedModel(const QString &id);
};

} // namespace rankscope

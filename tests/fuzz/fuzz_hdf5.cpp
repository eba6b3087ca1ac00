// HDF5 files of fuzzed attributes and datasets (Hdf5FuzzImage), read by both of RankScope's HDF5
// readers: the checkpoint reader, every tensor, and the results-file loader.
#include "FuzzInput.h"
#include "Hdf5FuzzImage.h"
#include "io/CheckpointFormats.h"
#include "io/CheckpointReader.h"
#include "spectral/EigenvalueDensity.h"

#include <cstdlib>

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    // A matrix the checkpoint declares and holds is read: keep it within the fuzzer's memory limit.
    setenv("RANKSCOPE_MAX_MATRIX_BYTES", "64M", 1);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray image = rankscope::fuzz::Hdf5FuzzImage::build(data, size);
    if (image.isEmpty())
        return 0;
    const QString path = rankscope::fuzz::writeInput(reinterpret_cast<const uint8_t *>(image.constData()), size_t(image.size()),
                                                     QStringLiteral("fuzz.h5"));
    QString error;
    if (auto reader = rankscope::openCheckpoint(path, &error))
        for (const rankscope::TensorInfo &t : reader->tensors())
            reader->readMatrix(t.name, t.shape.size() == 3 ? 0 : -1);
    rankscope::ResultsFile::isResultsFile(path);
    // What the views draw of a loaded results file: each spectrum's density, as the spectrum view and
    // `export --figure spectrum` bin it (a non-finite σ once indexed past the bins).
    if (const auto run = rankscope::ResultsFile::load(path, &error))
        for (const rankscope::MatrixResult &r : run->results) {
            const Eigen::VectorXd lambda = r.singularValues.array().square();
            rankscope::logBinnedDensity(lambda, rankscope::densityBinsFor(lambda.size()));
        }
    return 0;
}

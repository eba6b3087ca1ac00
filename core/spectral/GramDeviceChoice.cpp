#include "spectral/GramDeviceChoice.h"

namespace rankscope {

std::optional<DeviceRequest> parseDeviceRequest(const QString &text)
{
    for (DeviceRequest request : {DeviceRequest::Auto, DeviceRequest::Cpu, DeviceRequest::Cuda})
        if (text.compare(QLatin1String(deviceRequestName(request)), Qt::CaseInsensitive) == 0)
            return request;
    return std::nullopt;
}

const char *deviceRequestName(DeviceRequest request)
{
    switch (request) {
    case DeviceRequest::Cpu: return "cpu";
    case DeviceRequest::Cuda: return "cuda";
    case DeviceRequest::Auto: break;
    }
    return "auto";
}

DeviceChoice chooseGramDevice(DeviceRequest request, int maxSessions, const GramDeviceOpener &open)
{
    DeviceChoice choice;
    if (request == DeviceRequest::Cpu) {
        choice.why = QStringLiteral("--device cpu");
        return choice;
    }
    QString why;
    if (std::unique_ptr<GramDevice> device = open(launcherLocalRank(), &why)) {
        choice.device = std::make_shared<DeviceGramSolver>(std::move(device), maxSessions);
        return choice;
    }
    choice.why = QStringLiteral("no usable GPU: ") + why;
    choice.refused = request == DeviceRequest::Cuda;
    return choice;
}

int launcherLocalRank()
{
    // Open MPI's mpirun, MPICH's hydra, Slurm's srun, PMIx launchers.
    for (const char *variable : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMIX_LOCAL_RANK"}) {
        bool ok = false;
        const int rank = qEnvironmentVariableIntValue(variable, &ok);
        if (ok && rank >= 0)
            return rank;
    }
    return 0;
}

} // namespace rankscope

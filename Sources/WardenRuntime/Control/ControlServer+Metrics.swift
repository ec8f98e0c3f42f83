import Hummingbird
import NIOCore
import WardenAPI

extension ControlServer {
    /// `GET /metrics`: the daemon's metrics in the Prometheus text format, for operators.
    func addMetrics(to router: Router<ControlServerContext>) {
        route(router, ControlAPI.metrics) { _, _, caller in
            try caller.requireOperator(toDo: "read the metrics")
            guard let text = try await self.control.metricsExposition() else {
                throw ControlServerFailure(.notFound, "notFound", "This daemon keeps no metrics.")
            }
            return Self.exposition(text)
        }
    }

    /// An answer in the Prometheus text exposition format, version 0.0.4.
    static func exposition(_ text: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

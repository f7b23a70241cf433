# ilmctl's container image: `make image` builds it (needs docker).
# A static binary (CGO_ENABLED=0) on distroless's static image, run as its
# nonroot user (65532); deploy/kubernetes runs it with a read-only root
# and $TMPDIR on an emptyDir.
FROM golang:1.26 AS build
# The go command fetches go1.27.3 from the Go module proxy, as the Makefile
# has it: go1.26.8's standard library has vulnerabilities ilmctl calls
# (docs/dependencies.md#vulnerabilities).
ENV GOTOOLCHAIN=go1.27.3
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" \
	-o /out/ilmctl ./cmd/ilmctl

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ilmctl /usr/local/bin/ilmctl
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/ilmctl"]

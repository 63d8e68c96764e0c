// What every ns-3 program of the validation suite shares: the TCP set to match the
// superpacket scenario it is compared with (python/superpacket/validation/ns3.py).
// No TCP timestamps (a 1500-byte packet carries 1460 bytes, as ours), no delayed ACK,
// initial window 10, minimum RTO 200 ms, initial RTO (the SYN's) 1 s, recovery as asked
// (classic RFC 6582 NewReno with "classic", PRR with "prr"), SACK and limited transmit as
// asked (ns-3's defaults have both on).
#pragma once

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <string>

inline void
ConfigureTcp(const std::string& cc, const std::string& recovery, bool sack, bool limitedTransmit)
{
    using namespace ns3;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(cc));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 27));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 27));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
}

// A point-to-point link of `rate` and `delay` whose device queue holds `devq` packets
// (1: the queue disc in front of it holds the rest, as ours counts the waiting packets).
inline ns3::PointToPointHelper
Link(const std::string& rate, const std::string& delay, const std::string& devq = "1p")
{
    using namespace ns3;
    PointToPointHelper h;
    h.SetDeviceAttribute("DataRate", StringValue(rate));
    h.SetChannelAttribute("Delay", StringValue(delay));
    h.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue(devq));
    return h;
}

// A FIFO queue disc of `size` ("100p").
inline ns3::TrafficControlHelper
Fifo(const std::string& size)
{
    using namespace ns3;
    TrafficControlHelper h;
    h.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(size));
    return h;
}
